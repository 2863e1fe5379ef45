/**
 * CRC-32 as U-Boot checksums its environment: the IEEE 802.3 polynomial, reflected
 * (0xEDB88320), initial value and final XOR 0xFFFFFFFF; the same CRC as zlib's crc32.
 * Node 20 has no crc32 in `zlib` (it arrived in 22.2), so the table is built here.
 */
const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
