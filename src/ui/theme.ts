import { createContext } from 'react';

/** Whether the dashboard may colour its text (off for NO_COLOR, TERM=dumb and plain frames). */
export const ThemeContext = createContext({ color: true });
