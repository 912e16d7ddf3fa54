import { RunMonitor } from '../monitor';
import { IEventPage, IProposal } from '../models';
import { ev, makeProposal, makeRun } from './fixtures';

function api(pages: IEventPage[], proposals: IProposal[]) {
  const afters: number[] = [];
  return {
    afters,
    getRun: jest.fn(async () => makeRun({ best_score: 0.86, status: 'running' })),
    getEvents: jest.fn(async (_id: string, after: number) => {
      afters.push(after);
      return pages.shift() ?? { events: [], next: after };
    }),
    getProposals: jest.fn(async () => proposals)
  };
}

describe('RunMonitor', () => {
  it('reads every page of events and the proposals in one round', async () => {
    const fake = api(
      [
        {
          events: [ev('phase', { phase: 'init' }, 0), ev('candidate', { score: 0.8, ok: true }, 1)],
          next: 2
        },
        { events: [ev('phase', { phase: 'refine' }, 2)], next: 3 }
      ],
      [makeProposal()]
    );
    const monitor = new RunMonitor(makeRun(), fake);
    let emitted = 0;
    monitor.changed.connect(() => emitted++);
    await monitor.refresh();
    expect(fake.afters).toEqual([0, 2, 3]);
    expect(monitor.summary.phase).toBe('refine');
    expect(monitor.statusText).toBe(
      'running · phase refine · best accuracy 0.86 ↑ · 1 proposal (1 pending)'
    );
    expect(emitted).toBe(1);
    await monitor.refresh();
    expect(fake.afters.slice(3)).toEqual([3]);
    monitor.dispose();
  });

  it('keeps the last state and reports the error when the server fails', async () => {
    const fake = api([], []);
    fake.getRun.mockRejectedValueOnce(new Error('Not found: run r1'));
    const monitor = new RunMonitor(makeRun(), fake);
    await monitor.refresh();
    expect(monitor.error).toBe('Not found: run r1');
    await monitor.refresh();
    expect(monitor.error).toBeNull();
    monitor.dispose();
  });

  it('marks a decision locally', async () => {
    const fake = api([], [makeProposal()]);
    const monitor = new RunMonitor(makeRun(), fake);
    await monitor.refresh();
    monitor.markDecided('p1', 'accept');
    expect(monitor.proposals[0].decision).toBe('accept');
    expect(monitor.statusText).toMatch(/1 proposal$/);
    monitor.dispose();
  });

  it('polls until disposed', async () => {
    jest.useFakeTimers();
    const fake = api([], []);
    const monitor = new RunMonitor(makeRun(), fake, 100);
    monitor.start();
    await jest.advanceTimersByTimeAsync(350);
    const calls = fake.getRun.mock.calls.length;
    expect(calls).toBeGreaterThanOrEqual(3);
    monitor.dispose();
    await jest.advanceTimersByTimeAsync(1000);
    expect(fake.getRun.mock.calls.length).toBe(calls);
    jest.useRealTimers();
  });
});
