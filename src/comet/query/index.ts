/** The event query language: parse, format, match. */
export * from './query.js'
export { parseQuery, parseAttributeTime } from './parse-query.js'
export { addEvent, compareDecimal, flattenEvents, foldHex, matchCondition, matchQuery, matchValue, type EventMap } from './match-query.js'
