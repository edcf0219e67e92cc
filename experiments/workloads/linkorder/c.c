/* linkorder object c: a few functions so that moving this object moves several. */
#include "linkorder.h"

__attribute__((noinline)) static unsigned mix_c(unsigned x) { return x * 2654435761u + 0xccc; }

__attribute__((noinline)) unsigned helper_c(unsigned x) { return mix_c(x) ^ (x >> 13); }

__attribute__((noinline)) unsigned step_c(unsigned x) { return mix_c(x) + helper_d(x); }
