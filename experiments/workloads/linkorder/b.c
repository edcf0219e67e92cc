/* linkorder object b: a few functions so that moving this object moves several. */
#include "linkorder.h"

__attribute__((noinline)) static unsigned mix_b(unsigned x) { return x * 2654435761u + 0xbbb; }

__attribute__((noinline)) unsigned helper_b(unsigned x) { return mix_b(x) ^ (x >> 13); }

__attribute__((noinline)) unsigned step_b(unsigned x) { return mix_b(x) + helper_c(x); }
