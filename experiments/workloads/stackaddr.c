/* stackaddr: prints the address of one of its stack variables and of the environment
 * block, then does a little work. With ASLR off the address moves only when the
 * environment (or argv) changes size: the layout effect of Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2.1. */
#include <stdio.h>

extern char **environ;

int main(void) {
  volatile int local = 0;
  for (int i = 0; i < 100000; ++i) local += i;
  printf("stack=%p environ=%p\n", (void *)&local, (void *)environ);
  return 0;
}
