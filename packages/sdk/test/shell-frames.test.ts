import { describe, expect, it } from 'vitest';
import { encodeFrame, frameDecoder, MAX_FRAME_BYTES, type ShellFrame } from '../src/shell-frames';

describe('shell frames', () => {
  it('decodes what it encodes, whatever the chunking', () => {
    const sent: ShellFrame[] = [
      { kind: 'data', bytes: Buffer.from('echo hello\r') },
      { kind: 'resize', cols: 120, rows: 40 },
      { kind: 'data', bytes: Buffer.alloc(0) },
      { kind: 'exit', code: -1 },
    ];
    const stream = Buffer.concat(sent.map(encodeFrame));
    for (const size of [1, 3, 7, stream.length]) {
      const got: ShellFrame[] = [];
      const feed = frameDecoder((frame) => got.push(frame));
      for (let i = 0; i < stream.length; i += size) feed(stream.subarray(i, i + size));
      expect(got).toEqual(sent);
    }
  });

  it('refuses an unknown kind and an oversized frame', () => {
    expect(() => frameDecoder(() => undefined)(Buffer.from([9, 0, 0, 0, 0]))).toThrow(/kind 9/);
    const huge = Buffer.alloc(5);
    huge.writeUInt8(1, 0);
    huge.writeUInt32BE(MAX_FRAME_BYTES + 1, 1);
    expect(() => frameDecoder(() => undefined)(huge)).toThrow(/bytes/);
  });
});
