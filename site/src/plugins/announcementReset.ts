import type { Plugin } from '@docusaurus/types';

// The theme hides a dismissed announcement bar before hydration using only the stored
// "dismiss" flag, so a new bar id would stay hidden for one more page load. This head script
// runs first and clears the flag when the stored id is not the current one, so a new
// announcement shows at once.
export default function announcementReset(_context: unknown, options: { id: string }): Plugin {
  const id = JSON.stringify(options.id);
  return {
    name: 'canopy-announcement-reset',
    injectHtmlTags() {
      return {
        headTags: [
          {
            tagName: 'script',
            innerHTML: `try{if(localStorage.getItem('docusaurus.announcement.id')!==${id})localStorage.removeItem('docusaurus.announcement.dismiss')}catch(e){}`,
          },
        ],
      };
    },
  };
}
