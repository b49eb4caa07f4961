import { describe, expect, it } from 'vitest';
import { canDropPageCache, dropPageCache } from './page-cache.js';

describe('page cache control', () => {
  it('says why it cannot drop the cache without root, instead of failing', () => {
    const result = dropPageCache({ isRoot: false });
    expect(result).toEqual({
      dropped: false,
      reason: expect.stringMatching(/not running as root/),
    });
    expect(canDropPageCache({ isRoot: false })).toBe(false);
  });

  it('reports a drop_caches file it cannot write', () => {
    const options = { isRoot: true, dropCachesFile: '/nonexistent/drop_caches' };
    expect(dropPageCache(options)).toEqual({
      dropped: false,
      reason: expect.stringMatching(/writing \/nonexistent\/drop_caches failed/),
    });
    expect(canDropPageCache(options)).toBe(false);
  });
});
