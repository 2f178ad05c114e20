import { useEffect, useRef, useState } from 'preact/hooks';

interface Props {
  message: string | null;
  onSubmit: (key: string) => void;
}

/** Asks for the API key; shown until a key is given and again after a 401. */
export function KeyPrompt({ message, onSubmit }: Props) {
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), [message]);
  return (
    <section class="key-prompt" aria-labelledby="key-title">
      <h2 id="key-title">Enter the API key</h2>
      {message ? (
        <p class="error" role="alert" data-testid="key-error">
          {message}
        </p>
      ) : (
        <p>Predictions need the service's API key. It is kept in this tab only (session storage).</p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const key = value.trim();
          if (key) onSubmit(key);
        }}
      >
        <label for="api-key">API key</label>
        <input
          ref={input}
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit">Use key</button>
      </form>
    </section>
  );
}
