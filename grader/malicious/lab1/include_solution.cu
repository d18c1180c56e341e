// Malicious lab 1 kernel: includes the reference solution at compile time, through the lab folder on the include
// path (labs/lab1-naive/../../solutions/...). Outside the sandbox this scores full marks. Must get: zero, "does not
// build": the sandbox has no solutions/ to include.
#include "../../solutions/lab1-naive/kernel.cu"
