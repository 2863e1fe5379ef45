/** A device is online when it communicated within this window (the legacy API's `status` too). */
export const ONLINE_WINDOW_SECONDS = 5 * 60;
