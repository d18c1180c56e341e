// cuda_runtime_api.h — CUDA's C runtime API header. Here the runtime API, its types and the built-ins are all in
// cuda_runtime.h, which emucc force-includes; a program that names this header gets the same.
#pragma once
#include "cuda_runtime.h"
