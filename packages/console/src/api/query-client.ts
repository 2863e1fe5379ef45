/**
 * The console's one query cache, shared by the React tree (main.tsx) and the routes' loaders
 * (routes/router.tsx), so a loader can start a screen's requests before its code has arrived.
 */
import { QueryClient } from '@tanstack/react-query';

// Server data is fresh for 10 s; live views refresh themselves from the event stream.
export const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 10_000, retry: 1, refetchOnWindowFocus: false } } });
