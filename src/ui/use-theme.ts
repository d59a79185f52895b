import { useContext } from 'react';
import { ThemeContext } from './theme.js';

/** A colour for ink's `color` prop, or undefined when colours are off. */
export function useTint(): (color: string) => string | undefined {
  const { color } = useContext(ThemeContext);
  return (c) => (color ? c : undefined);
}
