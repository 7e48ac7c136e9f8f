import random, sys
n, lookups, skew = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
d = {}
for i in range(n):
    d[i] = "value-%024d" % i
rnd = random.Random(42)
s = 0
for _ in range(lookups):
    s += len(d[int(n * rnd.random() ** skew)])
print(s)
