// What the machine process keeps besides the live machine: its profiles (created, edited and
// deleted here) and the job history (read again whenever the machine's state changes, since every
// job start and end is a change of state).
import { useCallback, useEffect, useState } from 'react';
import {
  type JobList,
  type JobOutcomeName,
  type JobRecord,
  MACHINE_ROUTES,
  type MachineProfile,
  type ProfileInput,
  type ProfileList,
  profilePath,
} from '#engine/machine/contract.ts';
import { requestJson } from '../../../lib/rest.ts';
import { authorizationHeader } from '../../../lib/session.ts';

export interface JobFilters {
  outcome: JobOutcomeName | 'running' | '';
  /** A `datetime-local` value (local time) or ''. */
  since: string;
  until: string;
}

export const NO_FILTERS: JobFilters = { outcome: '', since: '', until: '' };

/** The history's query string for these filters (also the CSV export's). */
export function jobsQueryString(filters: JobFilters, limit = 200): string {
  const query = new URLSearchParams();
  if (filters.outcome) query.set('outcome', filters.outcome);
  if (filters.since) query.set('since', new Date(filters.since).toISOString());
  if (filters.until) query.set('until', new Date(filters.until).toISOString());
  query.set('limit', String(limit));
  return query.toString();
}

export interface ProfilesView {
  profiles: MachineProfile[];
  /** Why the list could not be read (control refused from here, no machine process), or null. */
  problem: string | null;
  refresh(): Promise<void>;
  /** Each resolves with the saved profile, or throws the door's refusal (its `detail`). */
  create(input: ProfileInput): Promise<MachineProfile>;
  replace(id: number, input: ProfileInput): Promise<MachineProfile>;
  remove(id: number): Promise<void>;
}

export function useProfiles(enabled: boolean): ProfilesView {
  const [profiles, setProfiles] = useState<MachineProfile[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const refresh = useCallback(async () => {
    if (!enabled) return;
    try {
      setProfiles((await requestJson<ProfileList>(MACHINE_ROUTES.profiles)).profiles);
      setProblem(null);
    } catch (error) {
      setProblem((error as Error).message);
    }
  }, [enabled]);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const saved = async (work: Promise<MachineProfile>) => {
    const profile = await work;
    await refresh();
    return profile;
  };
  return {
    profiles,
    problem,
    refresh,
    create: (input) => saved(requestJson(MACHINE_ROUTES.profiles, { method: 'POST', body: input })),
    replace: (id, input) => saved(requestJson(profilePath(id), { method: 'PUT', body: input })),
    remove: async (id) => {
      await requestJson(profilePath(id), { method: 'DELETE' });
      await refresh();
    },
  };
}

export interface JobHistoryView {
  jobs: JobRecord[];
  problem: string | null;
  loading: boolean;
}

/** The history under `filters`, read again whenever `changed` does. */
export function useJobHistory(filters: JobFilters, changed: unknown): JobHistoryView {
  const [jobs, setJobs] = useState<JobRecord[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const query = jobsQueryString(filters);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `changed` is the signal to read again
  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    requestJson<JobList>(`${MACHINE_ROUTES.jobs}?${query}`, {
      headers: authorizationHeader(),
      signal: controller.signal,
    })
      .then((list) => {
        setJobs(list.jobs);
        setProblem(null);
      })
      .catch((error: Error) => {
        if (!controller.signal.aborted) setProblem(error.message);
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoading(false);
      });
    return () => controller.abort();
  }, [query, changed]);
  return { jobs, problem, loading };
}
