// device_launch_parameters.h — where CUDA declares threadIdx, blockIdx, blockDim, gridDim and warpSize. Here they
// are in cuda_runtime.h, which emucc force-includes; a program that names this header gets the same.
#pragma once
#include "cuda_runtime.h"
