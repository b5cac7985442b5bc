/**
 * Whether `folder` (workspace-relative, display form) can hold a file that include patterns with the
 * fixed leading folders `bases` pass (see glob-filter.ts `folderFilterBases`): it is one of them,
 * lies below one, or lies above one. Apart from glob-filter.ts so the search workers' walk tasks
 * use it without loading the glob compiler.
 */
export function mayHoldIncluded(bases: readonly string[], folder: string): boolean {
  return bases.some((base) => folder === base || folder.startsWith(`${base}/`) || base.startsWith(`${folder}/`))
}
