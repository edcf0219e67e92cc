/* linkorder object a: a few functions so that moving this object moves several. */
#include "linkorder.h"

__attribute__((noinline)) static unsigned mix_a(unsigned x) { return x * 2654435761u + 0xaaa; }

__attribute__((noinline)) unsigned step_a(unsigned x) { return mix_a(x) + helper_b(x); }
