"""The lessons' tools: python3 -m tools.lessons (see __main__.py), what make traffic, trace, heatmap, coalescing and
answers run."""
