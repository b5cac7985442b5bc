/** Whether `text` has no lone surrogate (what `String.prototype.isWellFormed` tells on ES2024). */
export function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)
}
