/*
 * What every family's .cu includes: the family API of <sweep/family.h> (the
 * input generator, the steps of a CPU check and of a model request, SW_HD)
 * and the built-in registry. Kept so the families' includes stay as they are.
 */
#ifndef SW_COMMON_CUH
#define SW_COMMON_CUH

#include "kernel.h"

#endif
