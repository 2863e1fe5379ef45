import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { webConsoleLocation } from './web-console-link';

describe('the docs site\'s "Web console" link', () => {
  const target = { url: null, adminPort: 4100 };

  it('leads to the admin port on the host name the reader used for the site', () => {
    expect(webConsoleLocation(target, 'docs.lab:3000')).toBe('http://docs.lab:4100/console/');
    expect(webConsoleLocation(target, '[::1]:3000')).toBe('http://[::1]:4100/console/');
    expect(webConsoleLocation(target, undefined)).toBe('http://127.0.0.1:4100/console/');
    expect(webConsoleLocation(target, 'bad host/')).toBe('http://127.0.0.1:4100/console/');
  });

  it('leads to the configured console when there is one', () => {
    expect(webConsoleLocation({ ...target, url: 'https://fleet.example/console/' }, 'docs.lab:3000')).toBe('https://fleet.example/console/');
    expect(loadConfig({ CANOPY_WEB_CONSOLE_URL: 'https://c.example/' }).webConsoleUrl).toBe('https://c.example/');
    expect(loadConfig({ CANOPY_PUBLIC_URL: 'https://fleet.example/' }).webConsoleUrl).toBe('https://fleet.example/console/');
    expect(loadConfig({}).webConsoleUrl).toBeNull();
  });
});
