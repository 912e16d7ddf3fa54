import { formatSeconds } from '../panel';

describe('formatSeconds', () => {
  it('reads as seconds, minutes or hours', () => {
    expect(formatSeconds(0)).toBe('0s');
    expect(formatSeconds(42.4)).toBe('42s');
    expect(formatSeconds(65)).toBe('1m 05s');
    expect(formatSeconds(3725)).toBe('1h 02m');
  });
});
