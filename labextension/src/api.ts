/**
 * The REST client of the `mlestar_jupyter` server extension.
 *
 * `requestAPI` is the one place that talks HTTP: it goes through
 * `ServerConnection.makeRequest`, which adds the Jupyter token and the XSRF header.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { Decision, IDescribeRun, IEventPage, IProposal, IStartRun, asRecord } from './models';

/** URL namespace of the server extension. */
export const API_NAMESPACE = 'mlestar';

/** One entry of an error answer's `fields`: which field of the request is wrong, and why. */
export interface IFieldProblem {
  field: string;
  message: string;
}

/**
 * A failed call: carries the HTTP status, the server's message (which says what to do) and,
 * for a 400, the server's `fields` list (one entry per bad field).
 */
export class MlestarAPIError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly endpoint: string,
    readonly fields: IFieldProblem[] = []
  ) {
    super(message);
    this.name = 'MlestarAPIError';
  }
}

/** Build the absolute URL of an endpoint, e.g. `runs/r1/events` with `{after: 3}`. */
export function apiUrl(
  endpoint: string,
  query: { [key: string]: string | number | undefined } = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): string {
  const url = URLExt.join(settings.baseUrl, API_NAMESPACE, endpoint);
  const params = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return params ? `${url}?${params}` : url;
}

/** Options of one call. */
export interface IRequestOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  query?: { [key: string]: string | number | undefined };
  settings?: ServerConnection.ISettings;
}

/**
 * Call the server extension and parse its JSON answer as `T`.
 *
 * @throws MlestarAPIError when the server cannot be reached or answers an error status.
 */
export async function requestAPI<T>(endpoint: string, options: IRequestOptions = {}): Promise<T> {
  const settings = options.settings ?? ServerConnection.makeSettings();
  const url = apiUrl(endpoint, options.query, settings);
  const init: RequestInit = { method: options.method ?? 'GET' };
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    init.headers = { 'Content-Type': 'application/json' };
  }
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new MlestarAPIError(
      `Cannot reach the MLE-STAR server extension (${String(error)}). ` +
        'Is `mlestar_jupyter` enabled? Check `jupyter server extension list`.',
      0,
      endpoint
    );
  }
  const text = await response.text();
  let data: unknown = null;
  if (text.length > 0) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    throw new MlestarAPIError(
      errorMessage(data, response.status),
      response.status,
      endpoint,
      fieldProblems(data)
    );
  }
  return data as T;
}

/** The `fields` of an error answer (`{"message": ..., "fields": [{field, message}]}`), else []. */
export function fieldProblems(data: unknown): IFieldProblem[] {
  const fields = asRecord(data).fields;
  if (!Array.isArray(fields)) {
    return [];
  }
  return fields
    .map(asRecord)
    .filter(f => typeof f.field === 'string')
    .map(f => ({ field: String(f.field), message: String(f.message ?? '') }));
}

/** The most useful message in an error answer (tornado's `message`, pydantic's `detail`). */
export function errorMessage(data: unknown, status: number): string {
  if (data && typeof data === 'object') {
    for (const key of ['message', 'detail', 'reason', 'error']) {
      const value = asRecord(data)[key];
      if (typeof value === 'string' && value) {
        return value;
      }
      if (value !== undefined && value !== null && key === 'detail') {
        return JSON.stringify(value);
      }
    }
  }
  if (typeof data === 'string' && data) {
    return data.slice(0, 500);
  }
  if (status === 404) {
    return 'Not found: the MLE-STAR server extension is not enabled or the run is unknown.';
  }
  return `The MLE-STAR server answered HTTP ${status}.`;
}

/** Typed calls of every endpoint. */
export const MlestarAPI = {
  /** Start a run on a notebook. */
  startRun(body: IStartRun): Promise<IDescribeRun> {
    return requestAPI<IDescribeRun>('runs', { method: 'POST', body });
  },

  /** Runs started for a notebook (server-root relative path), newest last. */
  listRuns(notebookPath?: string): Promise<IDescribeRun[]> {
    return requestAPI<IDescribeRun[]>('runs', {
      query: { notebook: notebookPath }
    });
  },

  /** The current state of one run. */
  getRun(runId: string): Promise<IDescribeRun> {
    return requestAPI<IDescribeRun>(`runs/${encodeURIComponent(runId)}`);
  },

  /** Stop a run gracefully (it ends with its best so far). */
  cancelRun(runId: string): Promise<IDescribeRun> {
    return requestAPI<IDescribeRun>(`runs/${encodeURIComponent(runId)}/cancel`, {
      method: 'POST',
      body: {}
    });
  },

  /** Pause or resume a run. */
  pauseRun(runId: string, pause: boolean): Promise<IDescribeRun> {
    return requestAPI<IDescribeRun>(`runs/${encodeURIComponent(runId)}/pause`, {
      method: 'POST',
      body: { pause }
    });
  },

  /** The next page of events: pass the previous page's `next` as `after` (0 at first). */
  getEvents(runId: string, after: number): Promise<IEventPage> {
    return requestAPI<IEventPage>(`runs/${encodeURIComponent(runId)}/events`, {
      query: { after }
    });
  },

  /** Every proposal of the run with its decision (null while pending). */
  getProposals(runId: string): Promise<IProposal[]> {
    return requestAPI<IProposal[]>(`runs/${encodeURIComponent(runId)}/proposals`);
  },

  /** Record a decision on one proposal. */
  decide(runId: string, proposalId: string, decision: Decision): Promise<unknown> {
    return requestAPI<unknown>(
      `runs/${encodeURIComponent(runId)}/proposals/${encodeURIComponent(proposalId)}/decision`,
      { method: 'POST', body: { decision } }
    );
  }
};

/** The API as an interface, so the panel and tests can swap in another implementation. */
export type IMlestarAPI = typeof MlestarAPI;
