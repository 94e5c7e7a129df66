import { Wallet, decryptKeystoreJson, encryptKeystoreJson } from 'ethers'
import { describe, expect, it } from 'vitest'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'
import {
  KeyFileFormatError,
  LIGHT_SCRYPT,
  WrongPassphraseError,
  decryptKey,
  encryptKey,
  parseKeyFile,
  serializeKeyFile,
} from '../../../src/keystore/key-file.js'

/** The published Web3 Secret Storage test vectors (password "testpassword"). */
const VECTOR_KEY = '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d'
const PBKDF2_VECTOR = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: { c: 262144, dklen: 32, prf: 'hmac-sha256', salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd' },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}
const SCRYPT_VECTOR = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: { dklen: 32, n: 262144, p: 8, r: 1, salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19' },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}

describe('Web3 Secret Storage v3 files', () => {
  it('decrypts the published pbkdf2 and scrypt test vectors', async () => {
    for (const vector of [PBKDF2_VECTOR, SCRYPT_VECTOR]) {
      const key = await decryptKey(parseKeyFile(JSON.stringify(vector)), 'testpassword')
      expect(bytesToHex(key.privateKey)).toBe(VECTOR_KEY)
    }
  })

  it('refuses a wrong passphrase with geth’s message', async () => {
    await expect(decryptKey(parseKeyFile(JSON.stringify(PBKDF2_VECTOR)), 'wrong')).rejects.toThrow(WrongPassphraseError)
    await expect(decryptKey(parseKeyFile(JSON.stringify(PBKDF2_VECTOR)), 'wrong')).rejects.toThrow(
      'could not decrypt key with given password',
    )
  })

  it('writes files ethers decrypts, and decrypts files ethers writes', async () => {
    const wallet = Wallet.createRandom()
    const ours = await encryptKey(hexToBytes(wallet.privateKey), 'pass phrase ü', LIGHT_SCRYPT)
    expect(ours.crypto.kdfparams).toMatchObject({ n: 4096, r: 8, p: 6, dklen: 32 })
    const opened = await decryptKeystoreJson(serializeKeyFile(ours), 'pass phrase ü')
    expect(opened.address).toBe(wallet.address)
    expect(opened.privateKey).toBe(wallet.privateKey)

    const theirs = await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, 'secret', { scrypt: { N: 1024 } })
    const key = await decryptKey(parseKeyFile(theirs), 'secret')
    expect(key.address).toBe(wallet.address)
    expect(bytesToHex(key.privateKey)).toBe(wallet.privateKey)
  })

  it('rejects files that are not v3 key files, or whose address is not their key’s', async () => {
    expect(() => parseKeyFile('{')).toThrow(KeyFileFormatError)
    expect(() => parseKeyFile(JSON.stringify({ ...SCRYPT_VECTOR, version: 1 }))).toThrow('version 1, want 3')
    expect(() =>
      parseKeyFile(
        JSON.stringify({
          ...SCRYPT_VECTOR,
          crypto: { ...SCRYPT_VECTOR.crypto, kdfparams: { ...SCRYPT_VECTOR.crypto.kdfparams, n: 1 << 30 } },
        }),
      ),
    ).toThrow('scrypt n')
    const wrongAddress = parseKeyFile(JSON.stringify({ ...PBKDF2_VECTOR, address: '0000000000000000000000000000000000000001' }))
    await expect(decryptKey(wrongAddress, 'testpassword')).rejects.toThrow('key content mismatch')
  })
})
