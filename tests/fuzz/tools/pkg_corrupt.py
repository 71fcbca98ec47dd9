# pkgfix.py IN OUT [off:byte ...] - flips bytes inside the MODULE section's blob and rewrites checksums
import struct, sys, random
def fnv(b, h=0xcbf29ce484222325):
    for c in b:
        h ^= c; h = (h * 0x100000001b3) & 0xffffffffffffffff
    return h
M64 = 0xffffffffffffffff
def wide(b):
    # tvm_hash_wide (core/base/strmap.c): the checksum of sections whose
    # flags have bit 0 set
    K = 0x9fb21c651e98df25
    def step(x, w):
        x = ((x ^ w) * K) & M64
        return x ^ (x >> 32)
    lane = [(0xcbf29ce484222325 + i) & M64 for i in range(4)]
    n = len(b) // 32 * 32
    for o in range(0, n, 32):
        for i in range(4):
            lane[i] = step(lane[i], int.from_bytes(b[o+8*i:o+8*i+8], "little"))
    h = 0xcbf29ce484222325
    for x in lane:
        h = step(h, x)
    return fnv(b[n:], h)
def sections(d):
    n = struct.unpack_from("<I", d, 12)[0]
    return [list(struct.unpack_from("<IIQQQ", d, 32+32*i)) for i in range(n)]
def refix(d):
    secs = sections(d)
    for i,s in enumerate(secs):
        s[4] = (wide if s[1] & 1 else fnv)(d[s[2]:s[2]+s[3]])
        struct.pack_into("<IIQQQ", d, 32+32*i, *s)
    struct.pack_into("<Q", d, 16, len(d))
    h = fnv(d[0:24]); h = fnv(d[32:32+32*len(secs)], h)
    struct.pack_into("<Q", d, 24, h)
def blob_range(d):
    for s in sections(d):
        if s[0] == 3:
            off, ln = s[2], s[3]
            size = struct.unpack_from("<Q", d, off+ln-0)[0] if False else None
            # blob is the last 'size' bytes of the section, preceded by u64 size
            # find by scanning for ELF magic
            i = d.find(b"\x7fELF", off, off+ln)
            return i, off+ln
if __name__ == "__main__":
    d = bytearray(open(sys.argv[1],"rb").read())
    a, b = blob_range(d)
    if sys.argv[3] == "rand":
        rnd = random.Random(int(sys.argv[4])); k = int(sys.argv[5])
        for _ in range(k):
            d[rnd.randrange(a, b)] = rnd.randrange(256)
    else:
        for spec in sys.argv[3:]:
            o, v = spec.split(":"); d[a+int(o,0)] = int(v,0)
    refix(d)
    open(sys.argv[2],"wb").write(d)
