/** One line of a comparison: in both, only in the older text, or only in the newer. */
export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

/** Above this many lines a side, the comparison lists everything as removed and added. */
const MAX_LINES = 2_000;

/** A line diff by longest common subsequence: short texts (story versions), exact results. */
export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  if (before.length > MAX_LINES || after.length > MAX_LINES) {
    return [
      ...before.map((text) => ({ kind: "removed" as const, text })),
      ...after.map((text) => ({ kind: "added" as const, text })),
    ];
  }
  const rows = before.length + 1;
  const cols = after.length + 1;
  // common[i][j]: length of the longest common subsequence of before[i..] and after[j..].
  const common = new Uint32Array(rows * cols);
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      common[i * cols + j] =
        before[i] === after[j]
          ? common[(i + 1) * cols + j + 1]! + 1
          : Math.max(common[(i + 1) * cols + j]!, common[i * cols + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length && j < after.length) {
    if (before[i] === after[j]) {
      out.push({ kind: "same", text: before[i]! });
      i++;
      j++;
    } else if (common[(i + 1) * cols + j]! >= common[i * cols + j + 1]!) {
      out.push({ kind: "removed", text: before[i++]! });
    } else {
      out.push({ kind: "added", text: after[j++]! });
    }
  }
  while (i < before.length) out.push({ kind: "removed", text: before[i++]! });
  while (j < after.length) out.push({ kind: "added", text: after[j++]! });
  return out;
}
