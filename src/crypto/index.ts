export * from './hash.js'
export * from './random.js'
export * from './ed25519.js'
export * from './secp256k1.js'
