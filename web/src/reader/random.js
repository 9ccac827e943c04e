// numpy's np.random.default_rng(seed) in the browser: SeedSequence and PCG64 (XSL-RR 128/64),
// for the draws tileset.looks makes, so a profile's altered looks are the same as Python's.
// Mirrors numpy/random/bit_generator.pyx (SeedSequence) and numpy/random/src/pcg64.

const mul32 = (a, b) => Math.imul(a, b) >>> 0;
const INIT_A = 0x43b0d7e5, MULT_A = 0x931e8875, INIT_B = 0x8b51f9dd, MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd, MIX_MULT_R = 0x4973f715, XSHIFT = 16, POOL_SIZE = 4;
const MASK128 = (1n << 128n) - 1n, MASK64 = (1n << 64n) - 1n;
const PCG_MULT = 0x2360ed051fc65da44385df649fccf645n;

// SeedSequence(seed).generate_state(words, uint32) for a non-negative integer seed.
export function seedState(seed, words) {
  const entropy = [];
  let n = BigInt(seed);
  do { entropy.push(Number(n & 0xffffffffn)); n >>= 32n; } while (n > 0n);
  let hashConst = INIT_A;
  const hashmix = (value) => {
    value = (value ^ hashConst) >>> 0;
    hashConst = mul32(hashConst, MULT_A);
    value = mul32(value, hashConst);
    return (value ^ (value >>> XSHIFT)) >>> 0;
  };
  const mix = (x, y) => {
    const r = (mul32(MIX_MULT_L, x) - mul32(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> XSHIFT)) >>> 0;
  };
  const pool = new Array(POOL_SIZE);
  for (let i = 0; i < POOL_SIZE; i++) pool[i] = hashmix(i < entropy.length ? entropy[i] : 0);
  for (let s = 0; s < POOL_SIZE; s++) {
    for (let d = 0; d < POOL_SIZE; d++) if (s !== d) pool[d] = mix(pool[d], hashmix(pool[s]));
  }
  for (let s = POOL_SIZE; s < entropy.length; s++) {
    for (let d = 0; d < POOL_SIZE; d++) pool[d] = mix(pool[d], hashmix(entropy[s]));
  }
  let hb = INIT_B;
  const out = [];
  for (let i = 0; i < words; i++) {
    let v = (pool[i % POOL_SIZE] ^ hb) >>> 0;
    hb = mul32(hb, MULT_B);
    v = mul32(v, hb);
    out.push((v ^ (v >>> XSHIFT)) >>> 0);
  }
  return out;
}

// np.random.default_rng(seed): random() and uniform(low, high) as numpy draws them.
export class Generator {
  constructor(seed = 0) {
    const w = seedState(seed, 8).map(BigInt);
    const u64 = (i) => w[2 * i] | (w[2 * i + 1] << 32n);   // uint32 pairs read as uint64, little-endian
    const initState = (u64(0) << 64n) | u64(1), initSeq = (u64(2) << 64n) | u64(3);
    this.inc = ((initSeq << 1n) | 1n) & MASK128;
    this.state = 0n;
    this.step();
    this.state = (this.state + initState) & MASK128;
    this.step();
  }

  step() { this.state = (this.state * PCG_MULT + this.inc) & MASK128; }

  // pcg64 next64: step, then XSL-RR output
  next64() {
    this.step();
    const value = ((this.state >> 64n) ^ this.state) & MASK64;
    const rot = this.state >> 122n;
    return ((value >> rot) | (value << ((64n - rot) & 63n))) & MASK64;
  }

  random() { return Number(this.next64() >> 11n) * (1.0 / 9007199254740992.0); }

  uniform(low, high) { return low + (high - low) * this.random(); }
}
