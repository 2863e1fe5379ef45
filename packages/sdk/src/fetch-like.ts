/** The fetch signature the client takes (the global fetch, undici's, or a test's). */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;
