// cuda.h — the CUDA driver API's header. The emulator has no driver API (cu* functions): a program that includes
// this header for its version macro, or for the runtime API it also brings, gets those; a call to a cu* function
// does not compile, by name.
#pragma once
#include "cuda_runtime.h"

#ifndef CUDA_VERSION
#define CUDA_VERSION CUDART_VERSION  // the toolkit's version, as 1000 * major + 10 * minor: 13000 for 13.0
#endif
