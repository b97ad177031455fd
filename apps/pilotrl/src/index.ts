export * from './config';
export * from './presets';
