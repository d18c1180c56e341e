"""The course's tools besides the course package: the lessons' tools, the GPU tools, the emulator benchmark."""
