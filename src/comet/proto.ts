/**
 * CometBFT's encodings are written with the generic protobuf writer and reader of `primitives/`; this module
 * keeps the name the comet, consensus and p2p code imports them by.
 */
export { marshalDelimited, ProtoReader, ProtoWriter, uvarintSize, WireType } from '../primitives/protobuf.js'
