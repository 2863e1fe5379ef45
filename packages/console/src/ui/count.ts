/** "1 device", "2 devices": a count with its noun, for every count the console prints. */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
