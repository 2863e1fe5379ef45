/**
 * The web console shell's wire format inside a tunnel, between the server's relay
 * (packages/server/src/web-console/) and the daemon's PTY service (packages/daemon/src/tunnels/
 * shell-service.ts); here so both sides share one copy. One TCP stream carries frames of [kind: 1 byte][length: 4 bytes, big
 * endian][payload]: `data` both ways (terminal bytes), `resize` to the device (columns, rows as
 * two 16-bit numbers), `exit` from the device (the shell's exit code as a 32-bit number) just
 * before it closes.
 */
export const FRAME = { data: 1, resize: 2, exit: 3 } as const;

/** Larger frames are a broken or hostile peer: the stream is closed. */
export const MAX_FRAME_BYTES = 1 << 20;

export type ShellFrame = { kind: 'data'; bytes: Buffer } | { kind: 'resize'; cols: number; rows: number } | { kind: 'exit'; code: number };

export function encodeFrame(frame: ShellFrame): Buffer {
  let payload: Buffer;
  if (frame.kind === 'data') payload = frame.bytes;
  else if (frame.kind === 'resize') {
    payload = Buffer.alloc(4);
    payload.writeUInt16BE(frame.cols, 0);
    payload.writeUInt16BE(frame.rows, 2);
  } else {
    payload = Buffer.alloc(4);
    payload.writeInt32BE(frame.code, 0);
  }
  const head = Buffer.alloc(5);
  head.writeUInt8(FRAME[frame.kind], 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** Feeds stream chunks, calls `onFrame` per whole frame; throws on an unknown kind or an oversized frame. */
export function frameDecoder(onFrame: (frame: ShellFrame) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 5) {
      const kind = pending.readUInt8(0);
      const length = pending.readUInt32BE(1);
      if (length > MAX_FRAME_BYTES) throw new Error(`shell frame of ${length} bytes`);
      if (pending.length < 5 + length) return;
      const payload = pending.subarray(5, 5 + length);
      pending = pending.subarray(5 + length);
      if (kind === FRAME.data) onFrame({ kind: 'data', bytes: Buffer.from(payload) });
      else if (kind === FRAME.resize && length === 4) onFrame({ kind: 'resize', cols: payload.readUInt16BE(0), rows: payload.readUInt16BE(2) });
      else if (kind === FRAME.exit && length === 4) onFrame({ kind: 'exit', code: payload.readInt32BE(0) });
      else throw new Error(`unknown shell frame kind ${kind}`);
    }
  };
}
