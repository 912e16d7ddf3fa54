import { ServerConnection } from '@jupyterlab/services';

import {
  apiUrl,
  errorMessage,
  fieldProblems,
  MlestarAPI,
  MlestarAPIError,
  requestAPI
} from '../api';

function reply(status: number, body: unknown): Response {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    ok: status >= 200 && status < 300,
    status,
    text: async () => text
  } as unknown as Response;
}

describe('apiUrl', () => {
  const settings = ServerConnection.makeSettings({ baseUrl: 'http://localhost:8888/lab-base/' });
  it('joins the base url, namespace and endpoint', () => {
    expect(apiUrl('runs/r1', {}, settings)).toBe('http://localhost:8888/lab-base/mlestar/runs/r1');
  });
  it('encodes the query and drops undefined values', () => {
    expect(apiUrl('runs', { notebook: 'my dir/nb #1.ipynb', after: undefined }, settings)).toBe(
      'http://localhost:8888/lab-base/mlestar/runs?notebook=my%20dir%2Fnb%20%231.ipynb'
    );
  });
});

describe('requests', () => {
  let makeRequest: jest.SpyInstance;
  beforeEach(() => {
    makeRequest = jest.spyOn(ServerConnection, 'makeRequest');
  });
  afterEach(() => makeRequest.mockRestore());

  const lastCall = () => {
    const [url, init] = makeRequest.mock.calls[makeRequest.mock.calls.length - 1];
    return { url: String(url), init: init as RequestInit };
  };

  it('POSTs a run as JSON through ServerConnection (token/XSRF)', async () => {
    makeRequest.mockResolvedValue(reply(201, { run_id: 'r9' }));
    const run = await MlestarAPI.startRun({
      task_dir: 'work',
      notebook_path: 'work/nb.ipynb',
      backend: 'offline',
      time_limit: 120,
      mode: 'autopilot'
    });
    expect(run.run_id).toBe('r9');
    const { url, init } = lastCall();
    expect(url).toMatch(/\/mlestar\/runs$/);
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body as string)).toEqual({
      task_dir: 'work',
      notebook_path: 'work/nb.ipynb',
      backend: 'offline',
      time_limit: 120,
      mode: 'autopilot'
    });
  });

  it('builds every endpoint', async () => {
    makeRequest.mockResolvedValue(reply(200, {}));
    const expectations: [() => Promise<unknown>, string, string, unknown][] = [
      [
        () => MlestarAPI.listRuns('a/b.ipynb'),
        'GET',
        '/mlestar/runs?notebook=a%2Fb.ipynb',
        undefined
      ],
      [() => MlestarAPI.getRun('r1'), 'GET', '/mlestar/runs/r1', undefined],
      [() => MlestarAPI.cancelRun('r1'), 'POST', '/mlestar/runs/r1/cancel', {}],
      [() => MlestarAPI.pauseRun('r1', true), 'POST', '/mlestar/runs/r1/pause', { pause: true }],
      [() => MlestarAPI.getEvents('r1', 7), 'GET', '/mlestar/runs/r1/events?after=7', undefined],
      [() => MlestarAPI.getProposals('r1'), 'GET', '/mlestar/runs/r1/proposals', undefined],
      [
        () => MlestarAPI.decide('r1', 'p/2', 'reject'),
        'POST',
        '/mlestar/runs/r1/proposals/p%2F2/decision',
        { decision: 'reject' }
      ]
    ];
    for (const [call, method, suffix, body] of expectations) {
      await call();
      const { url, init } = lastCall();
      expect(init.method).toBe(method);
      expect(url.endsWith(suffix)).toBe(true);
      expect(init.body === undefined ? undefined : JSON.parse(init.body as string)).toEqual(body);
    }
  });

  it('raises MlestarAPIError with the server message', async () => {
    makeRequest.mockResolvedValue(reply(400, { message: 'task_dir: folder not found' }));
    const error = (await requestAPI('runs', { method: 'POST', body: {} }).catch(
      e => e
    )) as MlestarAPIError;
    expect(error).toBeInstanceOf(MlestarAPIError);
    expect(error.status).toBe(400);
    expect(error.message).toBe('task_dir: folder not found');
  });

  it('explains an unreachable server', async () => {
    makeRequest.mockRejectedValue(new TypeError('Failed to fetch'));
    await expect(requestAPI('runs')).rejects.toThrow(/jupyter server extension list/);
  });

  it('accepts an empty body', async () => {
    makeRequest.mockResolvedValue(reply(204, ''));
    await expect(requestAPI('runs/r1/cancel', { method: 'POST' })).resolves.toBeNull();
  });
});

describe('fieldProblems', () => {
  it('keeps the entries that name a field', () => {
    const data = { fields: [{ field: 'name', message: 'required' }, null, 'x', { message: 'm' }] };
    expect(fieldProblems(data)).toEqual([{ field: 'name', message: 'required' }]);
    expect(fieldProblems({ fields: 'name' })).toEqual([]);
    expect(fieldProblems('text')).toEqual([]);
  });
});

describe('errorMessage', () => {
  it('prefers message, then pydantic detail', () => {
    expect(errorMessage({ message: 'm', detail: 'd' }, 400)).toBe('m');
    expect(errorMessage({ detail: [{ loc: ['time_limit'] }] }, 422)).toBe(
      '[{"loc":["time_limit"]}]'
    );
    expect(errorMessage(null, 404)).toMatch(/not enabled/);
    expect(errorMessage(null, 500)).toBe('The MLE-STAR server answered HTTP 500.');
  });
});
