/**
 * Every edit nodectl makes to an installed package, one module per package (scripts/dependency-patches.mjs
 * applies them after `npm install` and checks them before the start bundle is built). A module gives the
 * package's name, the version its edits were written against (the one package.json pins), and per file
 * the edits: the whole text replaced (`from`), its replacement (`to`) and why.
 */
import evm from './@ethereumjs/evm.mjs'
import rlp from './@ethereumjs/rlp.mjs'
import util from './@ethereumjs/util.mjs'
import hashes from './@noble/hashes.mjs'

export const PATCHES = [util, rlp, evm, hashes]
