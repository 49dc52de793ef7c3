/** What the engine worker asks of the slice reader (`sliceReader.ts`). */
export type SliceReaderRequest =
  /** Read `file` in slices of `sliceBytes`, at most `ahead` of them not yet taken. */
  | { readonly kind: 'start'; readonly file: Blob; readonly sliceBytes: number; readonly ahead: number }
  /** One slice was taken: one more may be read. */
  | { readonly kind: 'more' };

/** What the slice reader answers, in file order. */
export type SliceReaderReply =
  | { readonly kind: 'slice'; readonly buffer: ArrayBuffer }
  | { readonly kind: 'done' }
  | { readonly kind: 'error'; readonly message: string };
