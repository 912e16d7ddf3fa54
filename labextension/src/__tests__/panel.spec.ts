import { kernelRunDir, showRunCode } from '../panel';

describe('kernelRunDir', () => {
  it('makes a root-relative run folder relative to the notebook folder', () => {
    expect(kernelRunDir('.mlestar/runs/r1', 'work/bc/solution.ipynb')).toBe('../../.mlestar/runs/r1');
    expect(kernelRunDir('.mlestar/runs/r1', 'solution.ipynb')).toBe('.mlestar/runs/r1');
    expect(kernelRunDir('work/runs/r1', 'work/nb.ipynb')).toBe('runs/r1');
  });
  it('keeps absolute folders', () => {
    expect(kernelRunDir('/srv/runs/r1', 'a/b.ipynb')).toBe('/srv/runs/r1');
  });
});

describe('showRunCode', () => {
  it('quotes the folder as a Python string and reports a missing package', () => {
    const code = showRunCode('runs/it\'s "odd"\\x');
    expect(code).toContain('_mlestar_show_run("runs/it\'s \\"odd\\"\\\\x")');
    expect(code).toMatch(/except ImportError/);
  });
});
