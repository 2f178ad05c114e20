import type { Stage } from '../lib/types.js';

/** Which registry alias the live button and the model panel use. */
export function StageSwitch({ stage, onChange }: { stage: Stage; onChange: (s: Stage) => void }) {
  return (
    <fieldset class="stage-switch">
      <legend>Model</legend>
      {(['champion', 'challenger'] as const).map((s) => (
        <label key={s} class={s === stage ? 'seg-opt on' : 'seg-opt'}>
          <input type="radio" name="stage" value={s} checked={s === stage} onChange={() => onChange(s)} />
          {s === 'champion' ? 'Champion' : 'Challenger'}
        </label>
      ))}
    </fieldset>
  );
}
