# gencc.py N: a C file of N functions of chained arithmetic and branches,
# for gcc -O2 to optimise (the one-pass comparison's compiler job).
import random, sys
n = int(sys.argv[1])
random.seed(1)
out = ['#include <stdint.h>']
for i in range(n):
    out.append(f'uint64_t f{i}(uint64_t x){{')
    for k in range(20):
        out.append(f'  x = (x * {random.randrange(3,1<<30)}u) ^ (x >> {random.randrange(1,63)});')
        out.append(f'  if (x & {1<<random.randrange(0,60)}u) x += {random.randrange(1,1000)};')
    out.append('  return x;\n}')
out.append('uint64_t (*tab[])(uint64_t)={' + ','.join(f'f{i}' for i in range(n)) + '};')
out.append(f'int main(int c,char**v){{uint64_t s=c;for(int i=0;i<{n};i++)s=tab[i](s);return (int)s;}}')
open(f'gen{n}.c', 'w').write('\n'.join(out) + '\n')
