import { MantineProvider } from '@mantine/core';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { cssVariablesResolver, theme } from '../../src/ui/theme';

export const renderWithTheme = (ui: ReactElement) => render(<MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>{ui}</MantineProvider>);
