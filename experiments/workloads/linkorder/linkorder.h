/* One hot function per object, each calling into the next object. */
unsigned step_a(unsigned x);
unsigned step_b(unsigned x);
unsigned step_c(unsigned x);
unsigned step_d(unsigned x);
unsigned helper_b(unsigned x);
unsigned helper_c(unsigned x);
unsigned helper_d(unsigned x);
