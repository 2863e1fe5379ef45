import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inlineScriptHashes, withScriptHashes } from './inline-script-policy';

const sha = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('inline script hashes', () => {
  it('hashes the exact text of each inline script and skips scripts with a src', () => {
    const html = '<head><script>\n  a();\n</script><script type="module" src="/x.js"></script><script type="text/javascript">b()</script></head>';
    expect(inlineScriptHashes(html)).toEqual([sha('\n  a();\n'), sha('b()')]);
    expect(inlineScriptHashes('<script src="/only.js"></script>')).toEqual([]);
  });

  it("adds the hashes to script-src, or a script-src of 'self' and them when the policy has none", () => {
    const policy = "default-src 'self';script-src 'self';script-src-attr 'none'";
    expect(withScriptHashes(policy, ["'sha256-a'"])).toBe("default-src 'self';script-src 'self' 'sha256-a';script-src-attr 'none'");
    expect(withScriptHashes("default-src 'self'", ["'sha256-a'", "'sha256-b'"])).toBe("default-src 'self';script-src 'self' 'sha256-a' 'sha256-b'");
    expect(withScriptHashes(policy, [])).toBe(policy);
  });
});
