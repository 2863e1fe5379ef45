/** The admin API as the simulator and `canopy-daemon init` call it: fetch with a bearer key. */
export interface AdminApi {
  (method: string, path: string, body?: unknown): Promise<any>;
}

/** A minimal admin API client (fetch, bearer key); throws on any non-2xx with the error body. */
export function adminApi(baseUrl: string, apiKey: string): AdminApi {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : undefined;
  };
}
