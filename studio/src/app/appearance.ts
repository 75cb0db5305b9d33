/** Light, dark or the system's choice (svc_users.appearance; null or 'auto' follows the system). The theme is a
 * data attribute on <html> that the stylesheet's color tokens key on. */
import { useEffect } from 'react';

export function useAppearance(appearance: 'auto' | 'light' | 'dark' | null): void {
  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => {
      const dark = appearance === 'dark' || ((appearance === null || appearance === 'auto') && media.matches);
      document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    };
    apply();
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [appearance]);
}
