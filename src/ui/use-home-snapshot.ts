import { useEffect, useRef, useState } from 'react';
import type { HomeSnapshot } from '../ops/home-snapshot.js';

/** Subscribes to the home's change events; returns a stop function. */
export type Subscribe = (onChange: () => void, onError: (err: Error) => void) => Promise<() => Promise<void>>;

/**
 * The latest snapshot of the home: re-read when the home changes (no polling). Bursts of changes
 * (a run's log, an admission touching three files) coalesce into one read after `settleMs`.
 */
export function useHomeSnapshot(initial: HomeSnapshot, load: () => Promise<HomeSnapshot>, subscribe: Subscribe, settleMs = 100): { snap: HomeSnapshot; error: string | null } {
  const [snap, setSnap] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);
  const again = useRef(false);
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const reload = async () => {
      if (busy.current) {
        again.current = true;
        return;
      }
      busy.current = true;
      try {
        const next = await load();
        if (!stopped) {
          setSnap(next);
          setError(null);
        }
      } catch (err) {
        if (!stopped) setError(`cannot read the home: ${(err as Error).message}`);
      } finally {
        busy.current = false;
        if (again.current && !stopped) {
          again.current = false;
          void reload();
        }
      }
    };
    const onChange = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void reload(), settleMs);
    };
    let stop: (() => Promise<void>) | undefined;
    void subscribe(onChange, (err) => setError(`watching the home: ${err.message}`)).then((s) => {
      if (stopped) void s();
      else {
        stop = s;
        // Whatever changed between the first read and the watcher being ready.
        onChange();
      }
    });
    return () => {
      stopped = true;
      clearTimeout(timer);
      void stop?.();
    };
  }, [load, subscribe, settleMs]);
  return { snap, error };
}
