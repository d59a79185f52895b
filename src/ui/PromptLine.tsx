import { Line } from './Line.js';

/** A question (confirmation) or the text being typed, and the last action's outcome. */
export function PromptLine({ prompt, text, message, error }: { prompt: string | null; text?: string | null; message: string | null; error?: boolean }) {
  return (
    <>
      {message ? <Line color={error ? 'red' : 'green'}>{message}</Line> : null}
      {prompt ? <Line bold color="yellow">{prompt}{text != null ? ` ${text}█` : ''}</Line> : null}
    </>
  );
}
