/** Types of dependency-patches.mjs for the tests that use it. */

/** One edit: the whole text it replaces, its replacement and why. */
export interface Edit {
  why: string
  from: string
  to: string
}

/** The edits of one installed package (a module of patches/). */
export interface Patch {
  name: string
  version: string
  resolveFrom?: string
  files: Record<string, Edit[]>
}

/** One patched file of an installed package. */
export interface PatchedFile {
  patch: Patch
  /** The file inside the package. */
  file: string
  /** Its absolute path. */
  path: string
  edits: Edit[]
}

export function patchedFiles(root?: string): PatchedFile[]
export function patchText(target: PatchedFile, text: string): string
export function checkPatched(target: PatchedFile, text: string): void
export function applyPatches(root?: string): string[]
export function verifyPatches(root?: string): (PatchedFile & { sha256: string })[]
export function sha256(text: string): string
