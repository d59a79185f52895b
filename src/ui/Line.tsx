import { Text } from 'ink';
import type { ReactNode } from 'react';
import { useTint } from './use-theme.js';

/** One screen line: cut at the edge with an ellipsis, never wrapped (wide characters count double). */
export function Line({ children, color, dim, bold }: { children: ReactNode; color?: string; dim?: boolean; bold?: boolean }) {
  const tint = useTint();
  return (
    <Text wrap="truncate-end" color={color ? tint(color) : undefined} dimColor={dim && Boolean(tint('gray'))} bold={bold && Boolean(tint('white'))}>
      {children}
    </Text>
  );
}
