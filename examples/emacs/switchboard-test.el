;;; switchboard-test.el --- switchboard.el against a real host, in emacs --batch  -*- lexical-binding: t; -*-

;; emacs --batch -Q -L examples/emacs -l examples/emacs/switchboard-test.el -f ert-run-tests-batch-and-exit
;; with `switchboard' on PATH. Deterministic data: --backend memory and a fixed --now.

;;; Code:

(require 'ert)
(require 'switchboard)

(defconst switchboard-test-arguments '("--backend" "memory" "--now" "2026-01-01T09:00:00Z"))
;; The weather plugin's deterministic forecasts (source "synthetic"): no network.
(setenv "WEATHER_OFFLINE" "1")

(defun switchboard-test-wait-for (predicate &optional buffer)
  "Process the host's output until PREDICATE holds.
An error after a minute (a hang, not a timing) shows BUFFER's text."
  (with-timeout (60 (error "Nothing more came from the host; %s holds:\n%s" buffer
                           (and buffer (switchboard-test-buffer-text buffer))))
    (while (not (funcall predicate))
      (accept-process-output nil 1))))

(defun switchboard-test-buffer-text (name)
  (with-current-buffer name (buffer-substring-no-properties (point-min) (point-max))))

(defmacro switchboard-test-with-host (&rest body)
  "Run BODY with a fresh host, stopped afterwards."
  `(progn
     (apply #'switchboard-start switchboard-test-arguments)
     (unwind-protect (progn ,@body)
       (should (equal 0 (switchboard-stop))))))

(ert-deftest switchboard-inbox-lists-conversations ()
  (switchboard-test-with-host
   (switchboard-inbox 5)
   (let ((text (switchboard-test-buffer-text "*switchboard inbox*")))
     (should (= 5 (length (split-string text "\n" t))))
     (should (string-match-p "^2026-01-01T01:33:56Z  joan.clarke@bletchley.example +Hotel options in São Paulo (2)$" text)))))

(ert-deftest switchboard-thread-opens-from-the-inbox ()
  (switchboard-test-with-host
   (with-current-buffer (switchboard-inbox 5)
     (goto-char (point-min))
     (call-interactively #'switchboard-open-thread))
   (let ((text (switchboard-test-buffer-text "*switchboard thread*")))
     (should (string-prefix-p "Hotel options in São Paulo\n" text))
     (should (string-match-p "^Subject: Re: Hotel options in São Paulo$" text))
     (should (string-match-p "^From: demo@switchboard.example$" text)))))

(ert-deftest switchboard-chat-shows-pushed-messages ()
  (switchboard-test-with-host
   (switchboard-chat "dm-u0-u1")
   (let ((before (switchboard-test-buffer-text "*switchboard chat dm-u0-u1*")))
     (should (string-match-p "<u1>" before))
     (should (eq 'pending (intern (plist-get (switchboard-chat-send "dm-u0-u1" "Lunch at noon?") :state))))
     ;; The push of our own message, the confirmation, and the simulated peer's reply, as they arrive.
     (switchboard-test-wait-for
      (lambda ()
        (let ((text (switchboard-test-buffer-text "*switchboard chat dm-u0-u1*")))
          (and (string-match-p "<u0> Lunch at noon\\?$" text)
               (string-match-p "^-- emacs-[0-9]+-[0-9]+ sent$" text)
               (string-match-p "<u0> Lunch at noon\\?\n\\(.*\n\\)*.*<u1> " text))))
      "*switchboard chat dm-u0-u1*"))))

(ert-deftest switchboard-errors-signal-jsonrpc-error ()
  (switchboard-test-with-host
   (let ((err (should-error (switchboard-call "inbox.list" '(:limit "ten")) :type 'jsonrpc-error)))
     (should (equal -32602 (alist-get 'jsonrpc-error-code (cdr err)))))))

(ert-deftest switchboard-agenda-shows-each-day-with-its-weather ()
  (let ((switchboard-test-arguments
         (append switchboard-test-arguments
                 (list "--plugins" (expand-file-name "../../Plugins" (file-name-directory (locate-library "switchboard")))))))
    (switchboard-test-with-host
     (switchboard-agenda "2026-01-05" "2026-01-11" "Europe/Berlin" "Berlin")
     (let* ((text (switchboard-test-buffer-text "*switchboard agenda*"))
            (days (cl-remove-if (lambda (line) (string-prefix-p " " line)) (split-string text "\n" t))))
       (should (equal (mapcar (lambda (line) (substring line 0 10)) days)
                      '("2026-01-05" "2026-01-06" "2026-01-07" "2026-01-08" "2026-01-09" "2026-01-10" "2026-01-11")))
       (should (cl-every (lambda (line) (string-match-p "^[-0-9]+  [a-z]+, -?[0-9]+ to -?[0-9]+ °C$" line)) days))
       (should (string-match-p "^  \\(all day\\|[0-9][0-9]:[0-9][0-9]\\)  ." text))))))

;;; switchboard-test.el ends here
