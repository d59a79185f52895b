import { useEffect, useState } from 'react';

/** The clock, re-read once a second: only countdowns and elapsed times depend on it. */
export function useNow(clock: () => number, everyMs = 1000): number {
  const [now, setNow] = useState(clock);
  useEffect(() => {
    const t = setInterval(() => setNow(clock()), everyMs);
    return () => clearInterval(t);
  }, [clock, everyMs]);
  return now;
}
