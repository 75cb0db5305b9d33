/** Types of ./build-studio.mjs for the TypeScript that imports it (the test run's global setup). */
export function studioCurrent(): boolean;
export function ensureStudio(opts?: { force?: boolean; log?: (line: string) => void }): boolean;
