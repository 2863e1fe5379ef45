import { Prism } from 'prism-react-renderer';
import prismIncludeLanguages from '@theme/prism-include-languages';

// Adds the configured extra Prism languages (themeConfig.prism.additionalLanguages) to the
// highlighter once, when the first code block's module is evaluated.
prismIncludeLanguages(Prism);
