import { useEffect, useState } from 'react';

/** The terminal's size, updated on resize. */
export function useTerminalSize(stdout: NodeJS.WriteStream): { columns: number; rows: number } {
  const read = () => ({ columns: stdout.columns || 100, rows: stdout.rows || 40 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const on = () => setSize(read());
    stdout.on('resize', on);
    return () => {
      stdout.off('resize', on);
    };
  }, [stdout]); // eslint-disable-line react-hooks/exhaustive-deps
  return size;
}
