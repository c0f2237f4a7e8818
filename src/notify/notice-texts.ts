import type { ElicitationNotice } from '../core/notice.js';

/** The words of a notification, in one language. */
interface NoticeTexts {
  subject: Record<ElicitationNotice['event'], string>;
  /** The first line, before the question. */
  lead: Record<ElicitationNotice['event'], string>;
  escalated: string;
  askedBy: (tool: string) => string;
  expires: string;
  answer: string;
  inbox: string;
  forward: string;
}

const EN: NoticeTexts = {
  subject: {
    created: 'A question is waiting for you',
    reminder: 'Reminder: a question is waiting for you',
    expired: 'A question expired unanswered',
  },
  lead: {
    created: 'A tool is waiting for your answer:',
    reminder: 'A tool is still waiting for your answer:',
    expired: 'This question expired before anyone answered it:',
  },
  escalated: 'You are receiving this because the person it was for has not answered yet.',
  askedBy: (tool) => `Asked by: ${tool}`,
  expires: 'Expires',
  answer: 'Answer the question',
  inbox: 'Your open questions',
  forward: 'Only the person the question is for can answer it.',
};

const DE: NoticeTexts = {
  subject: {
    created: 'Eine Frage wartet auf Sie',
    reminder: 'Erinnerung: Eine Frage wartet auf Sie',
    expired: 'Eine Frage ist unbeantwortet abgelaufen',
  },
  lead: {
    created: 'Ein Tool wartet auf Ihre Antwort:',
    reminder: 'Ein Tool wartet noch auf Ihre Antwort:',
    expired: 'Diese Frage ist abgelaufen, bevor jemand sie beantwortet hat:',
  },
  escalated: 'Sie erhalten diese Nachricht, weil die Person, für die sie bestimmt war, noch nicht geantwortet hat.',
  askedBy: (tool) => `Gefragt von: ${tool}`,
  expires: 'Läuft ab',
  answer: 'Frage beantworten',
  inbox: 'Ihre offenen Fragen',
  forward: 'Nur die Person, für die die Frage bestimmt ist, kann sie beantworten.',
};

const AR: NoticeTexts = {
  subject: { created: 'سؤال بانتظارك', reminder: 'تذكير: سؤال بانتظارك', expired: 'انتهت صلاحية سؤال دون إجابة' },
  lead: {
    created: 'أداة تنتظر إجابتك:',
    reminder: 'ما زالت أداة تنتظر إجابتك:',
    expired: 'انتهت صلاحية هذا السؤال قبل أن يجيب عنه أحد:',
  },
  escalated: 'تصلك هذه الرسالة لأن الشخص المعني بالسؤال لم يُجب بعد.',
  askedBy: (tool) => `السائل: ${tool}`,
  expires: 'ينتهي في',
  answer: 'أجب عن السؤال',
  inbox: 'أسئلتك المفتوحة',
  forward: 'لا يستطيع الإجابة إلا الشخص المعني بالسؤال.',
};

const BY_LOCALE: Record<string, NoticeTexts> = { en: EN, de: DE, ar: AR };

/** The texts of `locale` (`en`, `de`, `ar`; a region such as `de-CH` counts as its language), English otherwise. */
export function noticeTexts(locale: string | undefined): { locale: 'en' | 'de' | 'ar'; texts: NoticeTexts } {
  const language = (locale ?? 'en').toLowerCase().split(/[-_]/)[0];
  return language === 'de' || language === 'ar' ? { locale: language, texts: BY_LOCALE[language] } : { locale: 'en', texts: EN };
}

/** The question's text, cut to `max` characters with an ellipsis (subjects, Slack's header). */
export function shortText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
