/**
 * @noble/hashes 2.x, the copy @ethereumjs/util loads (older copies nested under other packages are
 * left alone).
 */
export default {
  name: '@noble/hashes',
  version: '2.0.1',
  resolveFrom: '@ethereumjs/util',
  files: {
    'utils.js': [
      {
        why: "`bytesToHex` (@ethereumjs/util's `bytesToUnprefixedHex`: the state caches and the EIP-2929 warm sets key every account and slot access by hex) appended two digits a byte, a chain of intermediate strings: about 7% of the bytes allocated while ERC-20 transfers commit. Node.js's native hex encoder gives the same string in one allocation, 3 times faster for 32 bytes.",
        from: `    // pre-caching improves the speed 6x
    let hex = '';
    for (let i = 0; i < bytes.length; i++) {
        hex += hexes[bytes[i]];
    }
    return hex;`,
        to: '    return Buffer.prototype.hexSlice.call(bytes, 0, bytes.length);',
      },
    ],
  },
}
