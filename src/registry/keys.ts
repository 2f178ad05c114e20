/** The bucket of the model files (`<run_id>/model.json`); the registry's rows live in the database. */
export const REGISTRY_BUCKET = 'models' as const;
